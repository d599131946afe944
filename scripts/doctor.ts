// npm run doctor: the preflight of the configured target (src/preflight/doctor.ts); exit code 1 on any problem.
import { readEnvironment } from '../src/config/config.ts';
import { doctor } from '../src/preflight/doctor.ts';

const { values, strays } = readEnvironment();
const { lines, exitCode } = await doctor(values, strays);
console.log(lines.join('\n'));
process.exitCode = exitCode;
