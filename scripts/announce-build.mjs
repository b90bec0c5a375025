// `npm start` compiles first (prestart): the first time takes long enough that a silent terminal looks
// stuck, so it says so, on stderr (stdout carries the service's JSON log lines).
import { existsSync } from 'node:fs';

if (!existsSync(new URL('../dist/src/main.js', import.meta.url)))
  console.error(
    'First start: compiling the service (tsc), one to two minutes; later starts compile only what changed.',
  );
