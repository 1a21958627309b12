import type { OnProgress } from './bulk.js';

const WIDTH = 30;
const number = (n: number) => n.toLocaleString('en');

/**
 * Progress on stderr: on a terminal one line redrawn in place per table, a bar with the count and
 * percent; elsewhere (CI logs, pipes) one line per finished table.
 */
export function progressBar(stream: NodeJS.WriteStream = process.stderr): OnProgress {
  return ({ table, done, total, seconds }) => {
    const name = table.padEnd(26);
    const took = seconds === undefined ? '' : `  ${seconds.toFixed(1)} s`;
    // A step without rows (ANALYZE) shows only its time.
    const rows = total > 0 ? `${number(done).padStart(11)} rows` : ''.padStart(16);
    if (!stream.isTTY) {
      if (seconds !== undefined) stream.write(`${name} ${rows}${took}\n`);
      return;
    }
    if (total === 0) {
      stream.write(`\r${name} ${rows}${took}\x1b[K${seconds === undefined ? '' : '\n'}`);
      return;
    }
    const share = Math.min(1, done / total);
    const filled = Math.round(share * WIDTH);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}]`;
    const percent = `${Math.floor(share * 100)}%`.padStart(4);
    stream.write(`\r${name} ${bar} ${number(done)}/${number(total)} ${percent}${took}\x1b[K`);
    if (seconds !== undefined) stream.write('\n');
  };
}
