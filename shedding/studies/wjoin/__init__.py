"""The W-join study (kind ``wjoin``): the shapes of Hammad, Aref, Elmagarmid (2002), Figure 9, and
DGR's shedding policies carried to N streams, timed one run at a time in this process."""
