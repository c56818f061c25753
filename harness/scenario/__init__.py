"""What a run is about: the named scenarios, the stack (the default one or a user's bundle),
its charms' metadata and ``assumes``, and the files to watch.
"""
