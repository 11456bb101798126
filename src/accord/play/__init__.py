"""Front ends where a person takes a seat in an episode: the terminal and the browser.

Both implement :class:`accord.agents.human.Seat`; the episode itself runs through the
ordinary engine with a :class:`~accord.agents.human.HumanAgent` in the person's role.
"""
