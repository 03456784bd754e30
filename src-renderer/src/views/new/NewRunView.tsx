/** Start a run: task, sandbox, kit, mode, provider/model and limits; opens the live run. */
import { NewRunForm } from './NewRunForm.tsx';
import { useNewRun } from './useNewRun.ts';

export function NewRunView() {
  const v = useNewRun();
  return (
    <NewRunForm
      state={v.state}
      dispatch={v.dispatch}
      problem={v.problem}
      onSubmit={() => void v.submit()}
      sandboxes={v.sandboxes}
      kits={v.kits}
      providers={v.providers}
      loadError={v.loadError}
    />
  );
}
