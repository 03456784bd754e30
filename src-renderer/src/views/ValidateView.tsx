import { useState } from 'react';
import type { Response } from '../../../src-main/contract/api.ts';
import { api } from '../api/client.ts';
import { useStore } from '../store/store.ts';

const SAMPLE = `orders = get_orders()
if not orders.success:
    emit_result({"error": orders.message})
else:
    pending = [o for o in orders.data if o["status"] == "pending"]
    emit_result({"pending": len(pending)})
`;

export function ValidateView() {
  const sandbox = useStore((s) => s.selected);
  const [code, setCode] = useState(SAMPLE);
  const [result, setResult] = useState<Response<'scripts.validate'>>();
  const [error, setError] = useState<string>();
  const run = async () => {
    setError(undefined);
    try {
      setResult(await api['scripts.validate']({ code, language: 'python', ...(sandbox ? { sandbox } : {}) }));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section aria-label="validate">
      <h2>Validate a script</h2>
      <textarea
        aria-label="script"
        value={code}
        onChange={(e) => setCode(e.target.value)}
        rows={10}
        spellCheck={false}
      />
      <div>
        <button onClick={() => void run()}>Validate</button>
      </div>
      {error && (
        <div role="alert" className="error">
          {error}
        </div>
      )}
      {result &&
        (result.valid ? (
          <p className="ok">Valid</p>
        ) : (
          <ul aria-label="violations">
            {result.violations.map((v, i) => (
              <li key={i}>
                line {v.line}:{v.column} <code>{v.rule}</code> {v.message}
              </li>
            ))}
          </ul>
        ))}
    </section>
  );
}
