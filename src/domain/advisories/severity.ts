// Severity of an alias group: the highest CVSS version present (v4, then v3.x, then v2), the highest
// base score among that version's vectors, banded; else the database's own severity; else medium.
import { Cvss2, Cvss3P0, Cvss3P1, Cvss4P0 } from 'ae-cvss-calculator';
import type { OsvAdvisory, Severity } from '../../shared/types';

export function band(score: number): Severity {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  return 'low';
}

const V4_BASE = ['AV', 'AC', 'AT', 'PR', 'UI', 'VC', 'VI', 'VA', 'SC', 'SI', 'SA'];

/** The calculator scores an incomplete CVSS 4.0 vector as 0 instead of refusing it: check the base metrics first. */
function completeV4(vector: string): boolean {
  const metrics = new Set(
    vector
      .split('/')
      .slice(1)
      .map((part) => part.split(':')[0]),
  );
  return V4_BASE.every((m) => metrics.has(m));
}

/** [version rank, base score] of one vector; null when it cannot be scored. Rank: v4 = 3, v3.x = 2, v2 = 1. */
export function scoreVector(type: string, vector: string): [number, number] | null {
  try {
    const v = vector.trim();
    if (type === 'CVSS_V4' || v.startsWith('CVSS:4.0/'))
      return completeV4(v) ? [3, Number(new Cvss4P0(v).calculateScores().base)] : null;
    if (v.startsWith('CVSS:3.1/')) return [2, Number(new Cvss3P1(v).calculateScores().base)];
    if (v.startsWith('CVSS:3.0/')) return [2, Number(new Cvss3P0(v).calculateScores().base)];
    if (type === 'CVSS_V2') return [1, Number(new Cvss2(v).calculateScores().base)];
  } catch {
    // An unreadable vector is ignored: the next source of severity decides.
  }
  return null;
}

const DATABASE: Record<string, Severity> = {
  CRITICAL: 'critical',
  HIGH: 'high',
  MODERATE: 'medium',
  MEDIUM: 'medium',
  LOW: 'low',
};

export function groupSeverity(group: OsvAdvisory[]): Severity {
  let best: [number, number] | null = null;
  for (const a of group) {
    for (const s of a.severity ?? []) {
      const scored = typeof s?.score === 'string' ? scoreVector(String(s.type), s.score) : null;
      if (
        scored &&
        Number.isFinite(scored[1]) &&
        (!best || scored[0] > best[0] || (scored[0] === best[0] && scored[1] > best[1]))
      )
        best = scored;
    }
  }
  if (best) return band(best[1]);
  const ranks: Severity[] = ['critical', 'high', 'medium', 'low'];
  let db: Severity | null = null;
  for (const a of group) {
    const s = a.database_specific?.severity;
    const mapped = typeof s === 'string' ? DATABASE[s.toUpperCase()] : undefined;
    if (mapped && (!db || ranks.indexOf(mapped) < ranks.indexOf(db))) db = mapped;
  }
  return db ?? 'medium';
}
