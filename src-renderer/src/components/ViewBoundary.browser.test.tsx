import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import { ViewBoundary } from './ViewBoundary.tsx';

function Fails({ when }: { when: boolean }) {
  if (when) throw new Error('Illegal value for lineNumber');
  return <p>the view</p>;
}

/** A view that fails on one route, inside the boundary as App.tsx puts it, beside the rest of the app. */
function Shell() {
  const [route, setRoute] = useState('tools?line=500');
  return (
    <>
      <nav>
        <button onClick={() => setRoute('runs')}>Runs</button>
      </nav>
      <ViewBoundary name="tools" resetKey={route}>
        <Fails when={route === 'tools?line=500'} />
      </ViewBoundary>
    </>
  );
}

describe('ViewBoundary', () => {
  it("keeps a view's failure in that view, names it, and shows the view again after navigating", async () => {
    const screen = await render(<Shell />);
    const failed = screen.getByTestId('view-failed');
    await expect.element(failed).toBeVisible();
    expect(failed.element().textContent).toContain('The tools view failed: Illegal value for lineNumber');
    // The rest of the workbench is still there and works.
    await screen.getByRole('button', { name: 'Runs' }).click();
    await expect.element(screen.getByText('the view')).toBeVisible();
    expect(document.querySelector('[data-testid="view-failed"]')).toBeNull();
  });
});
