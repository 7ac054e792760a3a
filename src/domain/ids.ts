// Id and secret generation. Ids are prefixed, opaque to clients, and sort by creation time (a millisecond timestamp
// in Crockford base32 first), so "newest first" is an _id sort and keyset pagination needs no second field.
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../shared/sha256';

const B32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function timePart(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = B32[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

function randomChars(n: number, alphabet: string): string {
  // Rejection sampling keeps the distribution uniform over the alphabet.
  const out: string[] = [];
  const max = 256 - (256 % alphabet.length);
  while (out.length < n) {
    for (const b of randomBytes(n * 2)) {
      if (b < max && out.length < n) out.push(alphabet[b % alphabet.length]);
    }
  }
  return out.join('');
}

export type IdPrefix =
  | 'scn'
  | 'prj'
  | 'key'
  | 'mem'
  | 'org'
  | 'usr'
  | 'adv'
  | 'kev'
  | 'eps'
  | 'fnd'
  | 'dep'
  | 'inv'
  | 'aud'
  | 'upl'
  | 'whk'
  | 'evt'
  | 'dlv'
  | 'hrt'
  | 'hst'
  | 'gwt'
  | 'gw'
  | 'mcs'
  | 'mcp'
  | 'mre'
  | 'mue'
  | 'blk'
  | 'vxi'
  | 'trl';

export function newId(prefix: IdPrefix, now = Date.now()): string {
  return `${prefix}_${(timePart(now) + randomChars(12, B32)).toLowerCase()}`;
}

/** A credential secret: prefix + 40 random base62 characters (about 238 bits). */
export function newSecret(
  prefix: 'svc_key_' | 'svc_ses_' | 'svc_inv_' | 'svc_whs_' | 'svc_reg_' | 'svc_hst_' | 'svc_gw_' | 'svc_gwc_',
): string {
  return prefix + randomChars(40, B62);
}

export { sha256Hex };
