// npm run doctor: the preflight of the configured target (src/doctor.ts); exit code 1 on any problem.
import { readEnvironment } from '../src/config.ts';
import { doctor } from '../src/doctor.ts';

const { lines, exitCode } = await doctor(readEnvironment());
console.log(lines.join('\n'));
process.exitCode = exitCode;
