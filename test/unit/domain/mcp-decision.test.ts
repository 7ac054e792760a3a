// The decision of a pre usage event: every combination of control level × registry decision × high
// or critical issues on the host, with the decision and the reason the contract gives (docs/mcp.md).
import {
  CONTROL_LEVELS,
  isSevere,
  preDecision,
  type ControlLevel,
  type RegistryVerdict,
} from '../../../src/domain/mcp/decision';

type Row = [ControlLevel, RegistryVerdict, boolean, 'allow' | 'warn' | 'block', string];
const TABLE: Row[] = [
  ['observe', 'allow', false, 'allow', 'control_level_observe'],
  ['observe', 'allow', true, 'allow', 'control_level_observe'],
  ['observe', 'deny', false, 'allow', 'control_level_observe'],
  ['observe', 'deny', true, 'allow', 'control_level_observe'],
  ['observe', 'unreviewed', false, 'allow', 'control_level_observe'],
  ['observe', 'unreviewed', true, 'allow', 'control_level_observe'],
  ['warn', 'allow', false, 'allow', 'registry_allowed'],
  ['warn', 'allow', true, 'warn', 'high_severity_issues'],
  ['warn', 'deny', false, 'warn', 'registry_denied'],
  ['warn', 'deny', true, 'warn', 'registry_denied'],
  ['warn', 'unreviewed', false, 'warn', 'not_in_registry'],
  ['warn', 'unreviewed', true, 'warn', 'not_in_registry'],
  ['block', 'allow', false, 'allow', 'registry_allowed'],
  ['block', 'allow', true, 'warn', 'high_severity_issues'],
  ['block', 'deny', false, 'block', 'registry_denied'],
  ['block', 'deny', true, 'block', 'registry_denied'],
  ['block', 'unreviewed', false, 'block', 'not_in_registry'],
  ['block', 'unreviewed', true, 'block', 'not_in_registry'],
];

test.each(TABLE)('level %s, registry %s, severe issues %s → %s (%s)', (level, registry, issues, decision, reason) => {
  expect(preDecision(level, registry, issues)).toEqual({ decision, reason });
});

test('the table covers every combination exactly once', () => {
  const keys = TABLE.map(([l, r, i]) => `${l}/${r}/${i}`);
  expect(new Set(keys).size).toBe(keys.length);
  expect(keys.length).toBe(CONTROL_LEVELS.length * 3 * 2);
});

test('high and critical count as severe; medium and low do not', () => {
  expect(['critical', 'high', 'medium', 'low'].map(isSevere)).toEqual([true, true, false, false]);
});
