"""The bestmatch study (kind ``bestmatch``): the shapes of Kemper/Stegmaier 2002, §4, and the
bestmatch join under load shedding, run one after another in this process."""
