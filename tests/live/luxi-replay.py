#!/usr/bin/env python3
"""Replays canned Luxi replies on a unix socket: luxi-replay.py SOCKET REPLIES[:REPLIES...] [REQUEST_LOG].
Each connection gets the replies in order, one per request (messages end with 0x03);
with several files, the k-th connection gets the k-th (the last one for the rest)."""
import os, socket, sys
sock_path, replies_path = sys.argv[1], sys.argv[2]
log = sys.argv[3] if len(sys.argv) > 3 else None
sets = [[r for r in open(p, 'rb').read().split(b'\x03') if r] for p in replies_path.split(':')]
connections = 0
if os.path.exists(sock_path): os.unlink(sock_path)
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); srv.bind(sock_path); srv.listen(4)
while True:
    conn, _ = srv.accept(); buf = b''; n = 0; reqs = []
    replies = sets[min(connections, len(sets) - 1)]; connections += 1
    try:
        while n < len(replies):
            while b'\x03' not in buf:
                chunk = conn.recv(65536)
                if not chunk: raise EOFError
                buf += chunk
            req, buf = buf.split(b'\x03', 1); reqs.append(req)
            conn.sendall(replies[n] + b'\x03'); n += 1
    except (EOFError, BrokenPipeError, ConnectionResetError):
        pass
    conn.close()
    if log:
        with open(log, 'ab') as f: f.write(b''.join(r + b'\x03' for r in reqs))
