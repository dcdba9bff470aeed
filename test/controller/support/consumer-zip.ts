import { execFileSync } from 'node:child_process';
import { pythonWithTools } from '../../support/python-tools.ts';

let cached: Uint8Array | undefined;

/** A zip for the consumer: moto stores a function's code but never runs it here (its mapping is disabled). */
export function consumerZip(): Uint8Array {
  cached ??= execFileSync(pythonWithTools(), [
    '-c',
    "import io,sys,zipfile\nb=io.BytesIO()\nz=zipfile.ZipFile(b,'w')\nz.writestr('index.js','exports.handler=async()=>{}')\nz.close()\nsys.stdout.buffer.write(b.getvalue())",
  ]);
  return cached;
}
