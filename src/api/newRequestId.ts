const HEX = '0123456789abcdef';

/**
 * An X-Request-Id: a UUID v4 made from Math.random rather than node:crypto. The id correlates a
 * request with the logs of both sides; it is no secret and guards nothing, and V8 seeds Math.random
 * from the system's entropy in each process. node:crypto (about 15 of Node's modules) cost
 * `erp-sync check`, which sends one request, about 3 ms of CPU at each start (bench/RESULTS.md,
 * "What the commands load at start").
 */
export function newRequestId(): string {
  let id = '';
  for (let i = 0; i < 36; i++) {
    if (i === 8 || i === 13 || i === 18 || i === 23) id += '-';
    else if (i === 14) id += '4';
    else if (i === 19) id += HEX[8 + Math.floor(Math.random() * 4)];
    else id += HEX[Math.floor(Math.random() * 16)];
  }
  return id;
}
