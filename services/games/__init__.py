"""The games, one package each (``services/games/<game>/``), each found through its own ``throne.games`` entry
point; generic code never imports them."""
