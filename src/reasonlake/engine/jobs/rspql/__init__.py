"""RSP-QL queries over the home's streams: their windows are views, their answers a table
and a stream of the home, a network of them evaluated in dependency order (decision 0074)."""
