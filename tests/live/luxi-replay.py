#!/usr/bin/env python3
"""Replays canned Luxi replies on a unix socket: luxi-replay.py SOCKET REPLIES [REQUEST_LOG].
Each connection gets the replies in order, one per request (messages end with 0x03)."""
import os, socket, sys
sock_path, replies_path = sys.argv[1], sys.argv[2]
log = sys.argv[3] if len(sys.argv) > 3 else None
replies = [r for r in open(replies_path, 'rb').read().split(b'\x03') if r]
if os.path.exists(sock_path): os.unlink(sock_path)
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); srv.bind(sock_path); srv.listen(4)
while True:
    conn, _ = srv.accept(); buf = b''; n = 0; reqs = []
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
