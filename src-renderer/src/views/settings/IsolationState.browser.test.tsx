import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import { IsolationState } from './IsolationState.tsx';

const docker = { available: true, version: '27.1' };

describe('IsolationState', () => {
  it('Docker with one sandbox on gVisor: a badge per level, and nothing called weaker', async () => {
    const screen = await render(
      <IsolationState status={{ docker, isolation: 'docker; gvisor: ecommerce' }} />,
    );
    const state = screen.getByTestId('docker-state');
    await expect.element(state).toHaveAttribute('data-docker', 'available');
    await expect.element(state.getByText('isolation: docker')).toHaveAttribute('data-isolation', 'docker');
    const ecommerce = state.getByText('isolation: gvisor');
    await expect.element(ecommerce).toHaveAttribute('data-isolation', 'gvisor');
    expect(ecommerce.element().getAttribute('title')).toContain('under gVisor (runsc)');
    await expect
      .element(screen.getByTestId('sandbox-levels'))
      .toHaveTextContent(
        'ecommerce runs with isolation gvisor (set in its [sandboxes.NAME] section); the other sandboxes with docker.',
      );
    expect(screen.getByTestId('isolation-weaker').query()).toBeNull();
    expect(screen.getByText(/weaker than a Docker container/).query()).toBeNull();
    expect(screen.getByTestId('docker-missing').query()).toBeNull();
  });

  it('the process fallback: the level, the reason it runs and what to do', async () => {
    const screen = await render(
      <IsolationState
        status={{
          docker: { available: false, error: 'connect ENOENT /var/run/docker.sock', hint: 'Install Docker' },
          isolation: 'bubblewrap',
          isolationReason: 'no Docker engine answered: the process fallback (bubblewrap) runs',
        }}
      />,
    );
    await expect.element(screen.getByText('Docker not available')).toBeInTheDocument();
    await expect
      .element(screen.getByText('isolation: bubblewrap'))
      .toHaveAttribute('data-isolation', 'bubblewrap');
    await expect
      .element(screen.getByText('Scripts do not run in Docker: connect ENOENT /var/run/docker.sock'))
      .toBeInTheDocument();
    await expect
      .element(screen.getByTestId('isolation-reason'))
      .toHaveTextContent('no Docker engine answered: the process fallback (bubblewrap) runs');
    await expect.element(screen.getByText('What to do: Install Docker')).toBeInTheDocument();
    await expect
      .element(screen.getByTestId('docker-missing'))
      .toMatchTextContent(/run in the bubblewrap fallback/);
  });

  it('Docker answers but the default level is a process fallback: said to be weaker, with the reason', async () => {
    const screen = await render(
      <IsolationState
        status={{ docker, isolation: 'process', isolationReason: 'TOOLSMITH_BACKEND=process' }}
      />,
    );
    await expect
      .element(screen.getByTestId('isolation-weaker'))
      .toMatchTextContent(
        /scripts run with isolation process, which is weaker than a Docker container\. TOOLSMITH_BACKEND=process/,
      );
  });
});
