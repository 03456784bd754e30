/**
 * The Monaco editors, loaded on demand: Monaco is most of the bundle, and the run list, forms and
 * settings need none of it. `preloadEditors()` fetches it when the app is idle so the first editor
 * opens without waiting.
 */
import { lazy, Suspense } from 'react';
import type { ComponentProps } from 'react';

const load = () => import('./CodeEditor.tsx');
let loading: ReturnType<typeof load> | undefined;
const loadOnce = () => (loading ??= load());

const LazyCodeEditor = lazy(() => loadOnce().then((m) => ({ default: m.CodeEditor })));
const LazyCodeDiff = lazy(() => loadOnce().then((m) => ({ default: m.CodeDiff })));

type EditorProps = ComponentProps<typeof LazyCodeEditor>;
type DiffProps = ComponentProps<typeof LazyCodeDiff>;

const Placeholder = ({ height, label }: { height?: number | string | undefined; label: string }) => (
  <div
    className="code-editor muted pad"
    data-testid={`editor-${label}`}
    data-ready="false"
    style={{ height: height ?? 320 }}
  >
    Loading editor…
  </div>
);

export function CodeEditor(props: EditorProps) {
  return (
    <Suspense fallback={<Placeholder height={props.height} label={props.label} />}>
      <LazyCodeEditor {...props} />
    </Suspense>
  );
}

export function CodeDiff(props: DiffProps) {
  return (
    <Suspense fallback={<Placeholder height={props.height} label={`diff-${props.label}`} />}>
      <LazyCodeDiff {...props} />
    </Suspense>
  );
}

/** Starts loading Monaco in the background (idempotent). */
export function preloadEditors(): void {
  const go = () => void loadOnce();
  if ('requestIdleCallback' in window) window.requestIdleCallback(go, { timeout: 2000 });
  else setTimeout(go, 200);
}
