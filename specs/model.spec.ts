// Rules over sequences (src/model/): generated runs of operations (uploads in every wire form, reads by any route,
// signed URLs of any file of any upload, clock moves, sessions on either path, exchanged tokens), some sent at once,
// every answer judged by a model of the contract's state. Each test draws the operations its rule is most exposed to;
// a disagreement on any rule is reported under that rule with the shortest sequence that shows it.
import type { RuleId } from '../src/contract/rules.ts';
import type { ProfileName, WalkName } from '../src/model/generator.ts';
import { forEverySequence, observe, requireSettings, rule, test } from '../src/suite.ts';

const SEQUENCES: { rule: RuleId; statement: string; profile: ProfileName | WalkName }[] = [
  { rule: 'PERMANENT-URL-ANONYMOUS', statement: 'every operation kind after every other on one file or session answers as allowed', profile: 'every pair' },
  { rule: 'SESSION-CONTINUE', statement: 'any two kinds of operation at once are answered as in some order of the two', profile: 'at once' },
  { rule: 'SECURE-PRIVATE-AFTER', statement: 'each file keeps its kind and bytes whatever comes before, beside or after it', profile: 'histories' },
  { rule: 'SECURE-SIGNED-URL', statement: 'every file of every upload gets a signed URL of its own bytes in any sequence', profile: 'signed URLs' },
  { rule: 'PERMANENT-URL-ANONYMOUS', statement: 'every URL serves its own file whatever is uploaded after or beside it', profile: 'names and reads' },
  { rule: 'CUTOVER-ALL-SECURE', statement: 'every upload to every channel is secure from the change in any sequence', profile: 'the change' },
  { rule: 'SECURE-URL-FORM', statement: 'a secure upload is secure in every wire form in any sequence', profile: 'wire forms' },
  { rule: 'SESSION-CONTINUE', statement: 'every session continues as itself whatever runs between or beside it', profile: 'sessions' },
  { rule: 'AUTH-TENANT-EXECUTE', statement: "no token the run holds or obtains runs the other location's agent", profile: 'tokens' },
];

test.describe('rules over sequences', () => {
  for (const row of SEQUENCES) {
    test(...rule(row.rule, row.statement), async ({ api, clock, restartTarget, target, refreshChain }) => {
      if (row.profile === 'tokens') requireSettings(target, ['foreignAgentId', 'foreignLocationId', 'foreignAccess']);
      if (row.profile === 'the change' && target.nonEmailConversationId === undefined) observe('NON_EMAIL_CONVERSATION_ID is not set: the change is checked on the email conversation and the contact only');
      await forEverySequence(row.profile, { api, clock, restartTarget, target, refreshChain });
    });
  }
});
