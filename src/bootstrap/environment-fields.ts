import { z } from 'zod';

/** Field schemas shared by the settings files: each names its rule in the error it gives. */

export const integer = (min: number, max: number) =>
  z.coerce
    .number({ error: `must be an integer from ${min} to ${max}` })
    .int(`must be an integer from ${min} to ${max}`)
    .min(min, `must be an integer from ${min} to ${max}`)
    .max(max, `must be an integer from ${min} to ${max}`);

/** An optional string; empty (or blank) counts as unset. */
export const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/**
 * URLs of upstream APIs must not carry credentials: those have settings of their own, kept out of
 * logs. A value that is no URL at all passes here: the URL rule before it names the setting.
 */
export const hasNoCredentials = (url: string) => {
  if (!URL.canParse(url)) return true;
  const parsed = new URL(url);
  return parsed.username === '' && parsed.password === '';
};
