/**
 * Brings an archive source onto local disk as a private copy, streamed: its sha256 is computed
 * on the way and its size is capped by the byte budget, so a download that never ends (or a
 * huge file) fails at the budget with memory bounded. The copy is what is checked and then
 * extracted, so the bytes hashed are the bytes installed.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { openRegularFile } from '../files/regular-file.ts';
import type { OpenedFile } from '../files/regular-file.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { budgetError, startFetchDeadline } from './archive/budget.ts';
import type { ArchiveLimits } from './archive/budget.ts';
import { fetchFollowingSafely } from './archive/redirects.ts';
import type { InstallSource } from './install-source.ts';

type ArchiveSource = Extract<InstallSource, { kind: 'archive' }>;

function downloadError(source: ArchiveSource, message: string, data: Record<string, unknown> = {}): MepError {
  return new MepError(LocalErrorCode.Registry, message, { data: { source: source.spec, reason: 'download', ...data } });
}

async function openSource(source: ArchiveSource, limits: Readonly<ArchiveLimits>, signal: AbortSignal): Promise<AsyncIterable<Uint8Array>> {
  if ('path' in source.location) {
    const path = source.location.path;
    let opened: OpenedFile;
    try {
      // A regular file only: a FIFO or a device named as the archive would hang or never end.
      opened = await openRegularFile(path, { what: 'the archive', maxBytes: Number.MAX_SAFE_INTEGER });
    } catch (error) {
      const reason = ((error as MepError).data as { reason?: string } | undefined)?.reason;
      throw new MepError(LocalErrorCode.Usage, `Cannot read the archive ${path} (${reason ?? (error as NodeJS.ErrnoException).code ?? (error as Error).message}). Check the path.`, {
        data: { source: source.spec, ...(reason ? { reason } : {}) },
      });
    }
    if (opened.info.size > limits.maxBytes) {
      await opened.handle.close();
      throw budgetError(source.spec, 'bytes', limits.maxBytes, 'is larger than');
    }
    return opened.handle.createReadStream();
  }
  const url = source.location.url;
  let response: Response;
  try {
    response = await fetchFollowingSafely(url, signal, source.spec);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof MepError) throw error;
    throw downloadError(source, `Cannot download ${url}: ${(error as Error).message}. Check the URL and the network, or download it and install the file.`);
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw downloadError(source, `Downloading ${url} failed with HTTP ${response.status}. Check the URL.`, { status: response.status });
  }
  const announced = Number(response.headers.get('content-length') ?? NaN);
  if (announced > limits.maxBytes) {
    await response.body.cancel();
    throw budgetError(source.spec, 'bytes', limits.maxBytes, 'announces more than');
  }
  return webChunks(response.body);
}

/**
 * The chunks of a download. Read straight from the web stream (no Node stream in between, so
 * nothing can emit an error event after the caller stopped); stopping early cancels it.
 */
async function* webChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    // Stopped at the budget or by a failure: end the download. A failure to cancel a
    // connection already torn down changes nothing for the caller, who reports its own error.
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}

/**
 * Copies the archive of `source` to `file` (which must not exist) and returns its sha256.
 * Throws MepError(ERR_LIMIT, `data.budget: 'bytes'`) past `limits.maxBytes`, and
 * MepError(ERR_TIMEOUT, `data.limit: 'maxFetchMs'`) when it has not arrived within `limits.maxFetchMs`.
 *
 * @example
 * const sha256 = await copyArchive(source, join(scratch, 'archive.bin'), limits);
 */
export async function copyArchive(source: ArchiveSource, file: string, limits: Readonly<ArchiveLimits>): Promise<string> {
  const deadline = startFetchDeadline(limits, source.spec);
  try {
    return await copyWithin(source, file, limits, deadline.signal);
  } finally {
    deadline.stop();
  }
}

async function copyWithin(source: ArchiveSource, file: string, limits: Readonly<ArchiveLimits>, signal: AbortSignal): Promise<string> {
  const input = await openSource(source, limits, signal);
  const hash = createHash('sha256');
  const output = await open(file, 'wx', 0o600);
  let bytes = 0;
  const iterator = input[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await iterator.next();
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        throw downloadError(source, `Reading ${source.spec} failed: ${(error as Error).message}. Try again, or download it and install the file.`);
      }
      if (next.done) break;
      bytes += next.value.length;
      if (bytes > limits.maxBytes) throw budgetError(source.spec, 'bytes', limits.maxBytes, 'is larger than');
      hash.update(next.value);
      await output.write(next.value);
    }
  } catch (error) {
    // Stop the download or the read at once; its own failure to stop is not the story.
    await iterator.return?.().catch(() => undefined);
    throw error;
  } finally {
    await output.close();
  }
  return hash.digest('hex');
}
