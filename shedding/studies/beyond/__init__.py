"""The study of the policies beyond i.i.d. streams (kind ``beyond``)."""
