/**
 * secret.resolve, the extension → host request for a configured secret.
 *
 * MEP 0.1, Security and permissions: the host resolves a reference only when an approved operation
 * needs it and passes the value only through an explicitly granted permission. Resolved values
 * must not appear in transcripts, diagnostics or logs.
 */
import * as z from 'zod';
import { NonEmptyString } from './json-value.ts';

/** Params of secret.resolve: the configured reference to resolve (never the value). */
export const SecretResolveParams = z.looseObject({
  reference: NonEmptyString,
});
/** Params of secret.resolve. */
export type SecretResolveParams = z.infer<typeof SecretResolveParams>;

/** Result of secret.resolve: the secret value as a string. */
export const SecretResolveResult = z.string();
/** Result of secret.resolve. */
export type SecretResolveResult = z.infer<typeof SecretResolveResult>;
