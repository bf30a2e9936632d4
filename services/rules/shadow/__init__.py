"""In the Shadow of the Emperor, as one game plug-in (plugin.py): the rules (rules.py and the engine modules),
the presenter (presenter.py), its bots (bots/), RULES.md and COMMANDS.md."""
