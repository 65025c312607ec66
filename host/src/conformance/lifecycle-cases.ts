/**
 * Conformance cases for initialization, lifecycle order, describe and shutdown
 * (MEP 0.1, Lifecycle, Initialization, Capability claims, Conformance items 2, 3 and 7).
 */
import { ErrorCode } from '../protocol/errors.ts';
import { Method, checkAgreement, jsonEqual, parseClaimSet } from '../protocol/index.ts';
import { descendantsOf, stillRunning } from '../transport/process-tree.ts';
import type { ConformanceCase } from './case.ts';
import { conformanceFixtures, expect } from './context.ts';


/** Lifecycle and handshake cases. */
export const lifecycleCases: ConformanceCase[] = [
  {
    name: 'initialize with an integer id',
    category: 'initialization',
    async run(ctx) {
      const result = await ctx.initialize(1);
      expect(result.protocolVersion === '0.1', `selected protocol version ${JSON.stringify(result.protocolVersion)}, expected "0.1"`);
      expect(result.extension.id && result.extension.version, 'initialize result lacks extension id or version');
    },
  },
  {
    name: 'initialize with a string id',
    category: 'initialization',
    async run(ctx) {
      // The peer matches responses by exact id, so a changed id or type never resolves this.
      const result = await ctx.initialize('init-1');
      expect(result.protocolVersion === '0.1', 'wrong protocol version');
    },
  },
  {
    name: 'initialize without a common protocol version fails with -32011',
    category: 'initialization',
    async run(ctx) {
      const params = { ...conformanceFixtures.initialize, protocolVersions: conformanceFixtures.unsupportedProtocolVersions };
      const error = await ctx.expectError(ctx.request(Method.Initialize, params, 1), ErrorCode.ProtocolVersionMismatch, 'initialize offering only 99.0');
      const data = error.data as { hostVersions?: unknown; extensionVersions?: unknown } | undefined;
      expect(Array.isArray(data?.hostVersions) && Array.isArray(data?.extensionVersions), 'the -32011 error lacks data.hostVersions / data.extensionVersions');
    },
  },
  {
    name: 'requests before initialize are refused with -32014',
    category: 'lifecycle',
    needsSession: true,
    async run(ctx) {
      for (const method of [Method.Info, Method.Capabilities, Method.Shutdown, Method.BackendGenerate, Method.FrontendCompile]) {
        await ctx.expectError(ctx.request(method, {}), ErrorCode.NotInitialized, `${method} before initialize`);
      }
      await ctx.request(Method.Ping, {});
    },
  },
  {
    name: 'a second initialize is refused with -32600',
    category: 'lifecycle',
    needsSession: true,
    async run(ctx) {
      await ctx.initialize(1);
      await ctx.expectError(ctx.request(Method.Initialize, conformanceFixtures.initialize, 2), ErrorCode.InvalidRequest, 'second initialize');
    },
  },
  {
    name: 'extension.info and extension.capabilities match initialize',
    category: 'initialization',
    async run(ctx) {
      const init = await ctx.initialize();
      const caps = await ctx.request(Method.Capabilities, {});
      expect(jsonEqual(caps, init.capabilities), 'morphir.extension.capabilities differs from the initialize result');
      const info = (await ctx.request(Method.Info, {})) as { id?: string; extension?: { id?: string } };
      const id = info?.id ?? info?.extension?.id;
      expect(id === init.extension.id, `morphir.extension.info names ${JSON.stringify(id)}, initialize named ${JSON.stringify(init.extension.id)}`);
    },
  },
  {
    name: 'describe before initialize returns a claim set that agrees with the session',
    category: 'describe',
    async run(ctx) {
      let raw: unknown;
      try {
        raw = await ctx.request(Method.Describe, { protocolVersions: ['0.1'] });
      } catch (error) {
        // MEP 0.1: describe is optional; -32601 sends the host to the session fallback.
        await ctx.expectError(Promise.reject(error), ErrorCode.MethodNotFound, 'describe');
        return;
      }
      const claims = parseClaimSet(raw);
      const again = await ctx.request(Method.Describe, { protocolVersions: ['0.1'] });
      expect(jsonEqual(raw, again), 'a second describe returned a different claim set');
      const init = await ctx.initialize();
      const verdict = checkAgreement(init, claims);
      expect(verdict.ok, verdict.ok ? '' : `initialize disagrees with describe (rule ${verdict.rule}): ${verdict.message}`);
    },
  },
  {
    name: 'ping answers before and after initialize',
    category: 'lifecycle',
    async run(ctx) {
      await ctx.request(Method.Ping, {}, 'ping-1');
      await ctx.initialize();
      await ctx.request(Method.Ping, {}, 7);
    },
  },
  {
    name: 'shutdown, then only exit is accepted',
    category: 'shutdown',
    needsSession: true,
    async run(ctx) {
      await ctx.initialize();
      await ctx.request(Method.Shutdown, {});
      await ctx.expectError(ctx.request(Method.Ping, {}), ErrorCode.NotInitialized, 'ping after shutdown');
      await ctx.expectError(ctx.request(Method.Info, {}), ErrorCode.NotInitialized, 'extension.info after shutdown');
    },
  },
  {
    name: 'exit after shutdown ends the extension',
    category: 'shutdown',
    needsSession: true,
    async run(ctx) {
      await ctx.initialize();
      await ctx.request(Method.Shutdown, {});
      ctx.peer.notify(Method.Exit, {});
      // Only a process can end by itself; a wasm instance is released by the host.
      if (!('pid' in ctx.transport)) return;
      const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 2000));
      const outcome = await Promise.race([ctx.closed.then((e) => e ?? 'exited'), timeout]);
      expect(outcome !== 'timeout', 'the process was still running 2 s after morphir.exit');
      expect(outcome === 'exited', `the process ended with an error after morphir.exit: ${String((outcome as Error).message)}`);
    },
  },
  {
    name: 'shuts down without leaving a child process behind',
    category: 'shutdown',
    needsSession: true,
    async run(ctx) {
      // MEP 0.1, Conformance 7. Only a process has children; /proc shows them (Linux).
      const pid = (ctx.transport as { pid?: number }).pid;
      if (pid === undefined || process.platform !== 'linux') return;
      await ctx.initialize();
      await ctx.request(Method.Ping, {});
      const started = descendantsOf(pid);
      await ctx.request(Method.Shutdown, {});
      ctx.peer.notify(Method.Exit, {});
      await ctx.transport.close();
      const left = await stillRunning(started, 2_000);
      for (const survivor of left) {
        try {
          process.kill(survivor, 'SIGKILL');
        } catch {
          // It ended just now.
        }
      }
      expect(left.length === 0, `${left.length} process(es) it started outlived the session (pids ${left.join(', ')}): one left its process group (setsid) and the host could not contain it`);
    },
  },
];
