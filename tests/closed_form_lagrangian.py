#!/usr/bin/env python3
# Symbolic cross-check of the hand derivations in tests/closed_form_test.cpp, tests 5-7 (helical
# screw carrying a pendulum, turntable carrying a cylindrical joint, planar body): Lagrange's
# equations expanded by sympy from the COM positions and body rotations alone, independently of
# rbdref, and compared with the H and C written in the test's comments and code. Prints one line
# per test and exits non-zero on a mismatch. Not part of ctest (it needs python3-sympy):
#   python3 tests/closed_form_lagrangian.py
import sys

import sympy as sp

t, g = sp.symbols("t g")


def Rz(a):
    return sp.Matrix([[sp.cos(a), -sp.sin(a), 0], [sp.sin(a), sp.cos(a), 0], [0, 0, 1]])


def Rx(a):
    return sp.Matrix([[1, 0, 0], [0, sp.cos(a), -sp.sin(a)], [0, sp.sin(a), sp.cos(a)]])


def inertia(name):  # a general symmetric 3x3 rotational inertia
    xx, yy, zz, xy, xz, yz = sp.symbols(" ".join(name + s for s in ("xx", "yy", "zz", "xy", "xz", "yz")))
    return sp.Matrix([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])


def body_kinetic(m, com, R, Ic):
    """½ m |d com/dt|² + ½ ωᵀ Ic ω, ω the body-frame angular velocity (Rᵀ Ṙ = ω×)."""
    v = sp.diff(com, t)
    W = sp.simplify(R.T * sp.diff(R, t))
    w = sp.Matrix([W[2, 1], W[0, 2], W[1, 0]])
    return sp.Rational(1, 2) * m * (v.T * v)[0] + sp.Rational(1, 2) * (w.T * Ic * w)[0]


def lagrange(qs, T, V):
    """tau = d/dt ∂L/∂q̇ - ∂L/∂q = H q̈ + C: returns H and C."""
    L = T - V
    qd = [sp.diff(q, t) for q in qs]
    qdd = [sp.diff(q, t, 2) for q in qs]
    eqs = [sp.expand(sp.diff(sp.diff(L, a), t) - sp.diff(L, b)) for a, b in zip(qd, qs)]
    n = len(qs)
    H = sp.Matrix(n, n, lambda i, j: sp.diff(eqs[i], qdd[j]))
    C = sp.Matrix([sp.expand(eqs[i] - sum(H[i, j] * qdd[j] for j in range(n))) for i in range(n)])
    return H, C


def compare(name, H, C, H_test, C_test):
    dH, dC = sp.simplify(H - H_test), sp.simplify(C - C_test)
    ok = dH == sp.zeros(*H.shape) and dC == sp.zeros(*C.shape)
    print(f"{name}: {'agrees' if ok else 'DIFFERS'}")
    if not ok:
        print("  H - H_test =", dH, "\n  C - C_test =", dC)
    return ok


ok = True

# ---- 5. helical joint about z (pitch p) at (0, 0, z0), revolute about body-1 x at (d, 0, hz)
th, ph = sp.Function("theta")(t), sp.Function("phi")(t)
p, z0, m1, a1, b1, c1, m2, l, cx2, d, hz, A, B, Cc = sp.symbols("p z0 m1 a1 b1 c1 m2 l cx2 d hz A B Cc")
I1 = inertia("i1")
R1 = Rz(th)
o1 = sp.Matrix([0, 0, z0 + p * th])
com1 = o1 + R1 * sp.Matrix([a1, b1, c1])
R2 = R1 * Rx(ph)
com2 = o1 + R1 * sp.Matrix([d, 0, hz]) + R2 * sp.Matrix([cx2, 0, -l])
H, C = lagrange([th, ph], body_kinetic(m1, com1, R1, I1) + body_kinetic(m2, com2, R2, sp.diag(A, B, Cc)),
                g * (m1 * com1[2] + m2 * com2[2]))
s, c, X, K = sp.sin(ph), sp.cos(ph), d + cx2, m2 * l**2 + B - Cc
thd, phd = sp.diff(th, t), sp.diff(ph, t)
H_test = sp.Matrix([[I1[2, 2] + m1 * (a1**2 + b1**2 + p**2) + m2 * (l**2 * s**2 + X**2 + p**2) + B * s**2 + Cc * c**2,
                     m2 * l * (X * c + p * s)],
                    [m2 * l * (X * c + p * s), m2 * l**2 + A]])
C_test = sp.Matrix([2 * K * s * c * thd * phd + m2 * l * (p * c - X * s) * phd**2 + g * p * (m1 + m2),
                    -K * s * c * thd**2 + g * m2 * l * s])
ok &= compare("5. helical screw carrying a pendulum", H, C, H_test, C_test)

# ---- 6. revolute about z at (0, 0, z0), cylindrical about body-1 x at (0, e, hz), q = (psi, theta, d)
ps, th, dd = sp.Function("psi")(t), sp.Function("theta")(t), sp.Function("d")(t)
e, cx, cy, cz = sp.symbols("e cx cy cz")
R1 = Rz(ps)
com1 = sp.Matrix([0, 0, z0]) + R1 * sp.Matrix([a1, b1, c1])
R2 = R1 * Rx(th)
com2 = sp.Matrix([0, 0, z0]) + R1 * sp.Matrix([dd, e, hz]) + R2 * sp.Matrix([cx, cy, cz])
H, C = lagrange([ps, th, dd], body_kinetic(m1, com1, R1, I1) + body_kinetic(m2, com2, R2, sp.diag(A, B, Cc)),
                g * (m1 * com1[2] + m2 * com2[2]))
s, c = sp.sin(th), sp.cos(th)
Y, Z, X, r2 = cy * c - cz * s, cy * s + cz * c, dd + cx, cy**2 + cz**2
psd, thd, ddd = (sp.diff(x, t) for x in (ps, th, dd))
W = (B - Cc) * s * c - m2 * (e + Y) * Z
H_test = sp.Matrix([[I1[2, 2] + m1 * (a1**2 + b1**2) + m2 * ((e + Y)**2 + X**2) + B * s**2 + Cc * c**2, -m2 * X * Z,
                     -m2 * (e + Y)],
                    [-m2 * X * Z, A + m2 * r2, 0],
                    [-m2 * (e + Y), 0, m2]])
C_test = sp.Matrix([2 * W * psd * thd + 2 * m2 * X * psd * ddd - m2 * X * Y * thd**2,
                    -W * psd**2 - 2 * m2 * Z * psd * ddd + g * m2 * Y,
                    2 * m2 * Z * psd * thd - m2 * X * psd**2])
ok &= compare("6. turntable carrying a cylindrical joint", H, C, H_test, C_test)

# ---- 7. planar joint, normal x, u = y, w = z, at (ox, oy, oz), q = (x, y, theta)
x, y, th = sp.Function("x")(t), sp.Function("y")(t), sp.Function("theta")(t)
m, ox, oy, oz = sp.symbols("m ox oy oz")
Ib = inertia("i")
R = Rx(th)
com = sp.Matrix([ox, oy + x, oz + y]) + R * sp.Matrix([cx, cy, cz])
H, C = lagrange([x, y, th], body_kinetic(m, com, R, Ib), g * m * com[2])
s, c = sp.sin(th), sp.cos(th)
Y, Z = cy * c - cz * s, cy * s + cz * c
thd = sp.diff(th, t)
H_test = sp.Matrix([[m, 0, -m * Z], [0, m, m * Y], [-m * Z, m * Y, Ib[0, 0] + m * (cy**2 + cz**2)]])
C_test = sp.Matrix([-m * Y * thd**2, -m * Z * thd**2 + m * g, m * g * Y])
ok &= compare("7. planar body", H, C, H_test, C_test)

sys.exit(0 if ok else 1)
