// Finalisation (lossless-JSON check and deep freeze) against JSON.stringify of the same value.
import { freezeJson } from '@deepseek-ai/dsh-core';
import { recordRatio } from '../../../scripts/bench/report.mjs';
import { ns, pairedSync } from './timing.mjs';

function compare(label, make, copies) {
  const rounds = 9;
  const forStringify = Array.from({ length: copies }, make);
  // Fresh copies for every round, because finalisation freezes what it checks.
  const forFreeze = Array.from({ length: rounds }, () => Array.from({ length: copies }, make));
  const result = pairedSync(
    (v) => JSON.stringify(v),
    (v) => {
      if (freezeJson(v) !== undefined) throw new Error('bench value is not JSON');
    },
    forStringify,
    (round) => forFreeze[round],
    rounds,
  );
  console.log(`${label}: JSON.stringify ${ns(result.baseline)}, finalise ${ns(result.candidate)}`);
  return recordRatio({ pkg: 'core', label: `finalise ${label} vs JSON.stringify`, ratio: result.ratio, target: 2 });
}

export async function finalisation() {
  const big = 'x'.repeat(1 << 20);
  const string = compare('1 MB string', () => ({ output: `${big}` }), 5);
  const rows = compare(
    '20,000-object result',
    () => ({ rows: Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `row ${i}`, ok: i % 2 === 0 })) }),
    2,
  );
  return string && rows;
}
