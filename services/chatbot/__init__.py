"""An example chat-bot: one seat of a game played from a chat, through the gateway only.

* :mod:`services.chatbot.client`: the gateway's HTTP and WebSocket API, as a small synchronous client.
* :mod:`services.chatbot.adapter`: transport-agnostic: chat text in, gateway calls; gateway feed messages in,
  chat text out (narration, "your turn" with the menu, the end).
* :mod:`services.chatbot.console`: the console transport (stdin and stdout), and the loop that runs any
  transport; ``python -m services.chatbot`` (see its ``--help``).

It uses nothing of the service but its public HTTP and WebSocket API (it imports no other throne module), so it
can be copied out as the start of a bot for a real chat platform: write a transport that sends a string and
hands over each line a person types.
"""
