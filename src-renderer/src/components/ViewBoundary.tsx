/**
 * Keeps one view's failure inside that view: an error thrown while rendering it (a bug, a record the
 * view did not expect) shows what failed and a way back, where React would otherwise unmount the whole
 * workbench and leave a blank page. Navigating elsewhere (a new `resetKey`: the route) shows the view
 * again; the views are not remounted on a route change that leaves no error.
 */
import { Component } from 'react';
import type { ErrorInfo, ReactNode } from 'react';

interface Props {
  /** What the view is, for the message ("the Tools view"). */
  name: string;
  /** A failure is forgotten when this changes (App.tsx: the route). */
  resetKey: string;
  children: ReactNode;
}

export class ViewBoundary extends Component<Props, { error: Error | undefined }> {
  override state: { error: Error | undefined } = { error: undefined };

  static getDerivedStateFromError(error: unknown): { error: Error } {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(`the ${this.props.name} view failed`, error, info.componentStack);
  }

  override componentDidUpdate(prev: Props): void {
    if (prev.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: undefined });
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div role="alert" className="error view-failed" data-testid="view-failed">
        <p>
          The {this.props.name} view failed: {error.message}
        </p>
        <button onClick={() => this.setState({ error: undefined })}>Show it again</button>
      </div>
    );
  }
}
