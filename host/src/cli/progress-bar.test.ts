import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createProgressBar } from './progress-bar.ts';

const Bar = suite('cli :: progress bar');

Bar('should draw a bar and a percentage, keep it for a report without one, and fill it at the end', () => {
  const bar = createProgressBar();
  assert.is(bar({ requestId: 1, kind: 'begin', message: 'Compiling 4 modules', percentage: 0 }), `${'░'.repeat(24)}   0% Compiling 4 modules`);
  assert.is(bar({ requestId: 1, kind: 'report', message: 'Acme.Orders', percentage: 50 }), `${'█'.repeat(12)}${'░'.repeat(12)}  50% Acme.Orders`);
  assert.is(bar({ requestId: 1, kind: 'report', message: 'Type checking' }), `${'█'.repeat(12)}${'░'.repeat(12)}  50% Type checking`);
  assert.is(bar({ requestId: 1, kind: 'end' }), `${'█'.repeat(24)} 100% end`);
});

Bar('should clamp hostile percentages and show a message alone when there is none', () => {
  const bar = createProgressBar();
  assert.is(bar({ requestId: 'a', kind: 'begin', message: 'working' }), 'working');
  assert.match(bar({ requestId: 'a', kind: 'report', percentage: 1e9 }), /^█{24} 100% report$/);
  assert.match(bar({ requestId: 'b', kind: 'report', percentage: -5 }), /^░{24}   0% report$/);
  assert.is(bar({ requestId: 'c', kind: 'report', percentage: Number.NaN, message: 'x' }), 'x');
});

Bar.run();
