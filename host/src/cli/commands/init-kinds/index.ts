/** The templates of `mep init --kind`, by kind. */
import { backend } from './backend.ts';
import { frontend } from './frontend.ts';
import type { InitKind, KindTemplate } from './kind.ts';
import { transform } from './transform.ts';
import { validator } from './validator.ts';

export { INIT_KINDS, type InitKind, type KindTemplate } from './kind.ts';
export { SAMPLE_CATALOG } from './backend.ts';
export { SAMPLE_TINY } from './frontend.ts';

export const KIND_TEMPLATES: Readonly<Record<InitKind, KindTemplate>> = { backend, frontend, validator, transform };
