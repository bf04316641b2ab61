import sys, random, json
def urdf(n, branched, seed=1):
    r = random.Random(seed)
    out = ['<?xml version="1.0"?>', '<robot name="%s%d">' % ("tree" if branched else "chain", n)]
    def link(i):
        m = r.uniform(0.5, 2.0)
        out.append('<link name="l%d"><inertial><origin xyz="%.3f %.3f %.3f" rpy="0 0 0"/><mass value="%.4f"/>'
                   '<inertia ixx="%.4f" ixy="0" ixz="0" iyy="%.4f" iyz="0" izz="%.4f"/></inertial></link>' %
                   (i, r.uniform(-.05,.05), r.uniform(-.05,.05), r.uniform(0.05,0.15), m, 0.02*m, 0.025*m, 0.03*m))
    link(0)
    for i in range(1, n+1):
        link(i)
        p = (i-1) if not branched else (r.randrange(max(0,i-8), i) if r.random()<0.7 else r.randrange(0, i))
        ax = r.choice(["1 0 0","0 1 0","0 0 1"])
        out.append('<joint name="j%d" type="revolute"><parent link="l%d"/><child link="l%d"/><origin xyz="0 0 0.2" rpy="%.3f 0 0"/>'
                   '<axis xyz="%s"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>' % (i, p, i, r.uniform(-1,1), ax))
    out.append('</robot>')
    return "\n".join(out)
n = int(sys.argv[1]); b = sys.argv[2] == "tree"
open("%s%d.urdf" % (sys.argv[2], n), "w").write(urdf(n, b))
r = random.Random(7)
st = {"q":[r.uniform(-1,1) for _ in range(n)], "qd":[r.uniform(-1,1) for _ in range(n)], "qdd":[r.uniform(-1,1) for _ in range(n)], "tau":[r.uniform(-1,1) for _ in range(n)]}
json.dump(st, open("state%d.json" % n, "w"))
