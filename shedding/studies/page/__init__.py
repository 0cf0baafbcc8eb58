"""The page toolkit every study's report is built with: one self-contained HTML page that works
offline (:mod:`.page`), its sections and contents (:mod:`.sections`), tables (:mod:`.tables`),
figures embedded as plotly JSON (:mod:`.figures`), and the verdict on a paper's claim
(:mod:`.verdicts`)."""
