"""The exposure of HAZARD's shadow sample (:mod:`~shedding.online.hazard`, the learner of §"The
shadow sample" there) counted when an entry closes, in O(1) per entry instead of a step along its
age buckets.

An entry whose window ends and whose exposure was not yet counted in part (no refit while it was
open) has lived every age of the window: unmatched in every bucket before that of its first partner,
matched in every bucket after it, and split at its first partner's age in that bucket. So its close
adds the split bucket's two parts to the exposure at once and only counts the entry in ``xc[s, g,
q, b]`` by its group, beta bin and split bucket b (b = the number of buckets: never matched). At the
next refit (and before the statistics are laid out anew for more groups) :func:`settle` adds each
bucket's whole length times the entries split after it (unmatched) and before it (matched). The
exposure is a whole number of steps, so the sums are the same in any order: the refit reads the
same statistics to the bit as when every close stepped along its buckets (that step took HAZARD
about a tenth of its time per arrival on the flights: 13 buckets for every second arrival).
"""

from shedding.jit import njit


@njit(_nrt=False)
def close_whole(edges, ex, xc, s, col, q, first, b):
    """A shadow entry of side s, group column ``col`` and beta bin q closes having lived the whole
    window, none of it counted yet; its first partner came at age ``first`` in age bucket b (b =
    the number of buckets: none): the split bucket's two parts go to the exposure ``ex``, the whole
    buckets wait in ``xc``."""
    if b < edges.shape[0] - 1:
        ex[s, col, 0, b, q] += first - edges[b]
        ex[s, col, 1, b, q] += edges[b + 1] - first
    xc[s, col, q, b] += 1


@njit(_nrt=False)
def settle(edges, ex, xc):
    """Add the whole buckets of the entries counted in ``xc`` to the exposure ``ex`` and empty
    ``xc``: per (side, group, beta bin), bucket j's length times the entries split after j
    (unmatched there) and before j (matched there)."""
    nb = edges.shape[0] - 1
    for s in range(xc.shape[0]):
        for col in range(xc.shape[1]):
            for q in range(xc.shape[2]):
                after = 0
                for b in range(nb + 1):
                    after += xc[s, col, q, b]
                if after == 0:
                    continue
                before = 0
                for j in range(nb):
                    after -= xc[s, col, q, j]
                    steps = edges[j + 1] - edges[j]
                    ex[s, col, 0, j, q] += steps * after
                    ex[s, col, 1, j, q] += steps * before
                    before += xc[s, col, q, j]
                for b in range(nb + 1):
                    xc[s, col, q, b] = 0
