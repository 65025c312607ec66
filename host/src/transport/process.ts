/**
 * The process transport: an extension as a child process speaking framed JSON-RPC on stdio
 * (MEP 0.1, Native executable transport). Its phases live in process/.
 */
export { createProcessTransport, type ProcessTransport, type ProcessTransportOptions } from './process/index.ts';
export { endAllProcessGroups } from './process-group.ts';
