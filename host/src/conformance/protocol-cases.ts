/**
 * Conformance cases for the wire itself: malformed envelopes, unparsable bodies and a clean
 * output stream (MEP 0.1, Protocol and transport; Conformance items 1 and 5).
 */
import { ErrorCode } from '../protocol/errors.ts';
import { Method } from '../protocol/index.ts';
import type { ConformanceCase } from './case.ts';
import { conformanceFixtures, describeCode, expect } from './context.ts';

/** Wire-level cases. */
export const protocolCases: ConformanceCase[] = [
  {
    name: 'malformed envelopes are refused with -32600',
    category: 'protocol errors',
    async run(ctx) {
      for (const body of conformanceFixtures.malformedEnvelopes) {
        if (!ctx.sendRaw(body)) return;
        const response = await ctx.nextOrphanResponse();
        const code = (response.error as { code?: unknown } | undefined)?.code;
        expect(code === ErrorCode.InvalidRequest, `${body} was answered with ${code === undefined ? 'a result' : describeCode(code)}, expected -32600`);
      }
      await ctx.request(Method.Ping, {});
    },
  },
  {
    name: 'an unparsable body is refused with -32700 and a null id',
    category: 'protocol errors',
    async run(ctx) {
      if (!ctx.sendRaw(conformanceFixtures.unparsableBody)) return;
      const response = await ctx.nextOrphanResponse();
      const code = (response.error as { code?: unknown } | undefined)?.code;
      expect(code === ErrorCode.ParseError, `an unparsable body was answered with ${describeCode(code)}, expected -32700`);
      expect(response.id === null, `the parse error carries id ${JSON.stringify(response.id)}, expected null`);
      await ctx.request(Method.Ping, {});
    },
  },
  {
    name: 'standard output carries protocol frames only',
    category: 'logs on stdout',
    async run(ctx) {
      // A full lifecycle; any log line on stdout closes the transport with a framing error.
      await ctx.initialize();
      await ctx.request(Method.Ping, {});
      await ctx.request(Method.Capabilities, {});
      await ctx.request(Method.Shutdown, {});
      ctx.peer.notify(Method.Exit, {});
      const settled = await Promise.race([ctx.closed, new Promise<'open'>((r) => setTimeout(() => r('open'), 300))]);
      expect(settled === 'open' || settled === undefined, `the transport failed: ${settled && typeof settled === 'object' ? settled.message : ''}`);
    },
  },
];
