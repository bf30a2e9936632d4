// The peer of `make bench` (services/bench/peer.py): a boardgame.io 0.50 server with a tiny game, its
// in-memory store, socket.io transport and lobby REST API on one loopback port.
// Usage: NODE_PATH=<cache>/node_modules node server.js PORT
'use strict';
const { Server } = require('boardgame.io/server');

// Two players take turns; the one move adds one to a counter and ends the turn (boardgame.io's turn flow runs
// on every move, as throne's rules decide whose turn is next).
const Tiny = {
  name: 'tiny',
  minPlayers: 2,
  maxPlayers: 2,
  setup: () => ({ moves: 0 }),
  moves: {
    play: ({ G }) => {
      G.moves += 1;
    },
  },
  turn: { minMoves: 1, maxMoves: 1 },
};

const port = Number(process.argv[2]);
const server = Server({ games: [Tiny], origins: [/.*/] });
server.run({ port }, () => {
  // The line services/bench/peer.py waits for.
  console.log(`listening on ${port}`);
});
