"""A dynamics engine written in Python (numpy), for the module's tests: fixed-base trees of
revolute, continuous, prismatic and fixed joints, read from a fixture's canonical model (URDF
semantics: a body's frame is its joint frame; origin xyz + fixed-axis rpy; the inertial frame at
com with rpy). It shares no code or formulation with rbdref's reference (spatial algebra, RNEA,
CRBA): H is the Jacobian form sum_i J_v,i^T m_i J_v,i + J_w,i^T I_i J_w,i over the bodies' COMs,
and C the Jacobian transpose of Newton-Euler body forces with q_dd = 0,
  C = sum_i J_v,i^T m_i (a_com,i - g) + J_w,i^T (I_i alpha_i + w_i x I_i w_i),
with the accelerations propagated from the base in world coordinates (Craig's vector recursion).
qdd = H^-1 (tau - C), tau = H qdd + C, and H = L^T D L factored from the last DoF up.
`plant` removes one term, for the tests that an audit catches it:
  "gyroscopic"  w x I w left out of the body moments (C, tau, qdd wrong; H right)
"""
import numpy as np


def _f(x):
    return float(x)


def _rpy(r, p, y):
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return rz @ ry @ rx


def _axis_angle(a, t):
    a = a / np.linalg.norm(a)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(t) * k + (1 - np.cos(t)) * k @ k


class Engine:
    def __init__(self, model, plant=None):
        self.plant = plant
        self.g = np.array([_f(x) for x in model.get("gravity", [0, 0, "-9.81"])])
        self.bodies = []
        index = {}
        dof = 0
        for b in model["bodies"]:
            j = b["joint"]
            kind = {"continuous": "revolute"}.get(j["type"], j["type"])
            if kind not in ("revolute", "prismatic", "fixed"):
                raise ValueError(f"numpy engine: joint type {j['type']} not supported")
            o = b.get("origin", {})
            if "quat" in o:
                raise ValueError("numpy engine: quaternion origins not supported")
            ine = b["inertial"]
            I = ine["I"]
            Ic = np.array([[_f(I["ixx"]), _f(I["ixy"]), _f(I["ixz"])],
                           [_f(I["ixy"]), _f(I["iyy"]), _f(I["iyz"])],
                           [_f(I["ixz"]), _f(I["iyz"]), _f(I["izz"])]])
            Ri = _rpy(*[_f(x) for x in ine.get("rpy", [0, 0, 0])])
            self.bodies.append({
                "parent": index[b["parent"]] if b["parent"] is not None else -1,
                "kind": kind,
                "axis": np.array([_f(x) for x in j.get("axis", [1, 0, 0])]),
                "xyz": np.array([_f(x) for x in o.get("xyz", [0, 0, 0])]),
                "R0": _rpy(*[_f(x) for x in o.get("rpy", [0, 0, 0])]),
                "mass": _f(ine["mass"]),
                "com": np.array([_f(x) for x in ine["com"]]),
                "I": Ri @ Ic @ Ri.T,  # about the COM, body coordinates
                "dof": dof if kind != "fixed" else None,
            })
            if kind != "fixed":
                dof += 1
            index[b["name"]] = len(self.bodies) - 1
        self.nv = dof

    def _kinematics(self, q, qd):
        n = self.nv
        out = []
        for b in self.bodies:
            if b["parent"] < 0:
                Rp, op, wp, alp, aop = np.eye(3), np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3)
            else:
                p = out[b["parent"]]
                Rp, op, wp, alp, aop = p["R"], p["o"], p["w"], p["alpha"], p["a_o"]
            R = Rp @ b["R0"]
            o = op + Rp @ b["xyz"]
            z = R @ b["axis"] / np.linalg.norm(b["axis"])
            d = o - op
            w, al = wp.copy(), alp.copy()
            a_o = aop + np.cross(alp, d) + np.cross(wp, np.cross(wp, d))
            k = b["dof"]
            if b["kind"] == "revolute":
                R = R @ _axis_angle(b["axis"], q[k])
                w = wp + z * qd[k]
                al = alp + np.cross(wp, z * qd[k])
            elif b["kind"] == "prismatic":
                o = o + z * q[k]
                a_o = aop + np.cross(alp, o - op) + np.cross(wp, np.cross(wp, o - op)) + 2 * np.cross(wp, z * qd[k])
            out.append({"R": R, "o": o, "z": z, "w": w, "alpha": al, "a_o": a_o})
        # Jacobians of each COM: the DoFs of the body's ancestors (itself included)
        for i, b in enumerate(self.bodies):
            k = out[i]
            c = k["o"] + k["R"] @ b["com"]
            Jv, Jw = np.zeros((3, n)), np.zeros((3, n))
            j = i
            while j >= 0:
                bj, kj = self.bodies[j], out[j]
                if bj["dof"] is not None:
                    if bj["kind"] == "revolute":
                        Jw[:, bj["dof"]] = kj["z"]
                        Jv[:, bj["dof"]] = np.cross(kj["z"], c - kj["o"])
                    else:
                        Jv[:, bj["dof"]] = kj["z"]
                j = bj["parent"]
            r = c - k["o"]
            k.update(c=c, Jv=Jv, Jw=Jw, a_c=k["a_o"] + np.cross(k["alpha"], r) + np.cross(k["w"], np.cross(k["w"], r)),
                     Iw=k["R"] @ b["I"] @ k["R"].T)
        return out

    def H(self, q):
        n = self.nv
        H = np.zeros((n, n))
        for b, k in zip(self.bodies, self._kinematics(q, np.zeros(n))):
            H += b["mass"] * k["Jv"].T @ k["Jv"] + k["Jw"].T @ k["Iw"] @ k["Jw"]
        return H

    def C(self, q, qd):
        C = np.zeros(self.nv)
        for b, k in zip(self.bodies, self._kinematics(q, qd)):
            F = b["mass"] * (k["a_c"] - self.g)
            N = k["Iw"] @ k["alpha"]
            if self.plant != "gyroscopic":
                N = N + np.cross(k["w"], k["Iw"] @ k["w"])
            C += k["Jv"].T @ F + k["Jw"].T @ N
        return C

    @staticmethod
    def ltdl(H):
        """H = L^T D L, L unit lower triangular (RBDA table 6.3's factor, from the last row up)."""
        A = H.copy()
        n = len(A)
        L, D = np.eye(n), np.zeros(n)
        for k in range(n - 1, -1, -1):
            D[k] = A[k, k]
            L[k, :k] = A[k, :k] / D[k]
            A[:k, :k] -= np.outer(L[k, :k], L[k, :k]) * D[k]
        return L, D

    def run(self, s):
        H, C = self.H(s.q), self.C(s.q, s.qd)
        L, D = self.ltdl(H)
        return dict(H=H, C=C, tau=H @ s.qdd + C, qdd=np.linalg.solve(H, s.tau - C), L=L, D=D)
