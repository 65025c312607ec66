/**
 * A guest written only against the @extism/js-pdk globals (`Host.inputString`,
 * `Host.outputString`), no PDK and no MEP host API: a complete, minimal MEP 0.1 backend (target
 * `echo`) the way a user who knows only Extism would write it. Kept as a string so the
 * repository's own type check never sees guest globals; {@link writeFixture} puts it on disk.
 */

/** The guest's source. */
export const RAW_JS_PDK_GUEST = `const VERSIONS = ['0.1'];
const EXTENSION = { id: 'raw.js-pdk.echo', name: 'Raw js-pdk echo backend', version: '0.1.0' };
const CAPABILITIES = { backend: { targets: ['echo'], irVersions: ['3'], generate: true }, cancellation: true };
const CLAIMS = { claimsVersion: '0.1.0-draft.2', protocolVersions: VERSIONS, extension: { ...EXTENSION, types: ['backend'] }, capabilities: CAPABILITIES };
const E = { parse: -32700, request: -32600, method: -32601, params: -32602, version: -32011, notInitialized: -32014 };

type Json = { [key: string]: unknown };
class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): boolean => typeof v === 'string' || Number.isInteger(v);
let state: 'loaded' | 'ready' | 'stopped' = 'loaded';

function negotiate(params: unknown): string {
  const asked = isObject(params) ? params.protocolVersions : undefined;
  if (!Array.isArray(asked)) throw new RpcError(E.params, 'params.protocolVersions must be an array of strings');
  const common = VERSIONS.filter((v) => asked.includes(v));
  if (common.length === 0) throw new RpcError(E.version, 'No compatible Morphir Extension Protocol version.', { hostVersions: asked, extensionVersions: VERSIONS });
  return common[0] as string;
}

function generate(params: unknown): unknown {
  if (!isObject(params) || typeof params.target !== 'string' || !('ir' in params)) throw new RpcError(E.params, 'GenerateRequest needs { ir, target, options }');
  const ir = params.ir;
  if (params.target !== 'echo') return { success: false, artifacts: [], diagnostics: [{ severity: 'error', code: 'echo.target', message: 'Unknown target.' }] };
  if (!isObject(ir) || !Array.isArray(ir.distribution) || ir.distribution[0] !== 'Library') {
    return { success: false, artifacts: [], diagnostics: [{ severity: 'error', code: 'echo.invalid-ir', message: 'The input is not a Morphir IR library distribution.' }] };
  }
  return { success: true, artifacts: [{ path: 'echo/ir.json', content: JSON.stringify(ir), binary: false }], diagnostics: [] };
}

function call(method: string, params: unknown): unknown {
  if (state === 'stopped') throw new RpcError(E.notInitialized, method + ' is not allowed after shutdown.');
  if (state === 'loaded' && !['morphir.initialize', 'morphir.extension.describe', 'morphir.ping'].includes(method)) {
    throw new RpcError(E.notInitialized, method + ' is not allowed before morphir.initialize.');
  }
  switch (method) {
    case 'morphir.initialize': {
      if (state !== 'loaded') throw new RpcError(E.request, 'morphir.initialize was already called.');
      const protocolVersion = negotiate(params);
      state = 'ready';
      return { protocolVersion, extension: EXTENSION, capabilities: CAPABILITIES };
    }
    case 'morphir.extension.describe':
      negotiate(params);
      return CLAIMS;
    case 'morphir.ping':
      return { ok: true };
    case 'morphir.extension.info':
      return EXTENSION;
    case 'morphir.extension.capabilities':
      return CAPABILITIES;
    case 'morphir.backend.generate':
      return generate(params);
    case 'morphir.shutdown':
      state = 'stopped';
      return {};
    default:
      throw new RpcError(E.method, method + ' is not implemented by ' + EXTENSION.id + '.');
  }
}

function answer(message: unknown): Json | undefined {
  if (!isObject(message)) return { jsonrpc: '2.0', id: null, error: { code: E.request, message: 'A message must be a JSON object.' } };
  const hasId = 'id' in message;
  const id = hasId && isId(message.id) ? message.id : null;
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string' || (hasId && !isId(message.id)) || ('params' in message && typeof message.params !== 'object')) {
    return { jsonrpc: '2.0', id, error: { code: E.request, message: 'Invalid JSON-RPC 2.0 request envelope.' } };
  }
  if (!hasId) return undefined; // notifications: initialized, exit, $/cancelRequest
  if (message.method === 'morphir.exit') return { jsonrpc: '2.0', id, error: { code: E.request, message: 'morphir.exit is a notification.' } };
  try {
    return { jsonrpc: '2.0', id, result: call(message.method, message.params) };
  } catch (error) {
    if (error instanceof RpcError) return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message, data: error.data } };
    throw error;
  }
}

export function handle(): number {
  let message: unknown;
  try {
    message = JSON.parse(Host.inputString());
  } catch {
    Host.outputString(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: E.parse, message: 'Parse error.' } }));
    return 0;
  }
  const reply = answer(message);
  if (reply !== undefined) Host.outputString(JSON.stringify(reply));
  return 0;
}
`;
