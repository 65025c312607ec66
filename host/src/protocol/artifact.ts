/**
 * Generated artifacts as a backend returns them.
 *
 * MEP 0.1, Backend generation: "An artifact has exactly path, content, and binary." This is the one
 * closed object of the protocol: an extra member is refused instead of ignored, because the host
 * writes artifacts and must not guess what an unknown member (a mode, an absolute root) meant.
 * Path safety (relative, inside the output directory) is checked by `artifacts/`, not here.
 */
import * as z from 'zod';

/**
 * One generated file: `path` relative to the host's output directory, `content` UTF-8 text when
 * `binary` is false and base64 bytes when it is true. Exactly these three members.
 */
export const Artifact = z.strictObject({
  path: z.string().min(1),
  content: z.string(),
  binary: z.boolean(),
});
/** One generated file. */
export type Artifact = z.infer<typeof Artifact>;
