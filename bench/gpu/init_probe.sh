# How GPU attach cost grows with processes starting together (see init_probe.cpp); ~40 s on 4 GPUs.
g++ -O2 -std=c++20 bench/gpu/init_probe.cpp -o /tmp/ip -ldl -lpthread 2>/dev/null || exit 1
nvidia-smi -q | grep -m1 "Driver Version"
nvidia-smi -q | grep -c "Persistence Mode *: Enabled"
for r in 1 2 3; do
  for m in procs_loop procs_stagger procs_seq; do echo "== $m round $r"; /tmp/ip $m 4; done
  echo "== single round $r"; /tmp/ip procs 1
done
