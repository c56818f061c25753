"""Evidence of a run: bundle.json (the data), report.md and timeline.svg (two views of it).

``model`` holds the value, ``bundle`` its JSON, ``write`` the folder; ``report``, ``svg``,
``timeline_text`` and ``matrix`` render it; ``folders`` says where it goes.
"""
