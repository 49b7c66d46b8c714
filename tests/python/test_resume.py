"""Training resumes exactly: N steps, save model + optimizer + LR-schedule state, load them in
a fresh process, M more steps; the losses equal an uninterrupted N+M run bit for bit."""
import json
import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    import json, sys
    import tandem
    from tandem import mint
    from tandem.mint import nn

    mode, path, n_steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    tandem.manual_seed(0)
    x = mint.randn(64, 5)
    y = (x @ mint.randn(5, 1)).tanh()
    tandem.manual_seed(1)
    net = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = mint.optim.Adam(net.parameters(), lr=0.05)
    sched = mint.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    if mode == "resume":
        state = mint.load(path)
        net.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
    losses = []
    for _ in range(n_steps):
        loss = ((net(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    if mode == "first":
        mint.save({"model": net.state_dict(), "optimizer": opt.state_dict(),
                   "scheduler": sched.state_dict()}, path)
    print(json.dumps(losses))
''')


def run(mode, path, n):
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", SCRIPT, mode, str(path), str(n)],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_resume_is_bit_exact(tmp_path):
    ckpt = tmp_path / "state.safetensors"
    straight = run("straight", ckpt, 10)
    first = run("first", ckpt, 6)
    resumed = run("resume", ckpt, 4)
    assert first + resumed == straight
