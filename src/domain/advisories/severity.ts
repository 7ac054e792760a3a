// Severity of an alias group: the highest CVSS version present (v4, then v3.x, then v2), the highest
// base score among that version's vectors, banded; else the database's own severity; else medium. The vector that
// decided it is the group's CVSS (version, vector, score), shown on findings.
import { Cvss2, Cvss3P0, Cvss3P1, Cvss4P0 } from 'ae-cvss-calculator';
import type { Cvss, OsvAdvisory, Severity } from '../../shared/types';

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

const VERSION_OF_RANK = { 1: '2.0', 2: '3', 3: '4.0' } as const;

/** The group's CVSS: the vector of the highest version present with the highest base score; null without one. */
export function groupCvss(group: OsvAdvisory[]): Cvss | null {
  let best: { rank: number; score: number; vector: string } | null = null;
  for (const a of group) {
    for (const s of a.severity ?? []) {
      const vector = typeof s?.score === 'string' ? s.score.trim() : null;
      const scored = vector ? scoreVector(String(s.type), vector) : null;
      if (
        scored &&
        vector &&
        Number.isFinite(scored[1]) &&
        (!best || scored[0] > best.rank || (scored[0] === best.rank && scored[1] > best.score))
      )
        best = { rank: scored[0], score: scored[1], vector };
    }
  }
  if (!best) return null;
  const version =
    best.rank === 2 ? (best.vector.startsWith('CVSS:3.0/') ? '3.0' : '3.1') : VERSION_OF_RANK[best.rank as 1 | 3];
  return { version, vector: best.vector, score: best.score };
}

export function groupSeverity(group: OsvAdvisory[], cvss: Cvss | null = groupCvss(group)): Severity {
  if (cvss) return band(cvss.score);
  const ranks: Severity[] = ['critical', 'high', 'medium', 'low'];
  let db: Severity | null = null;
  for (const a of group) {
    const s = a.database_specific?.severity;
    const mapped = typeof s === 'string' ? DATABASE[s.toUpperCase()] : undefined;
    if (mapped && (!db || ranks.indexOf(mapped) < ranks.indexOf(db))) db = mapped;
  }
  return db ?? 'medium';
}
