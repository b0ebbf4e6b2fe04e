"""The harness's service path reads y_hat and six levels back into all 13 quantiles (stub server).

    model/.venv/bin/python model/test_eval_service.py
"""
import sys, json, threading
sys.path.insert(0, __import__('os').path.dirname(__file__))
from http.server import BaseHTTPRequestHandler, HTTPServer
import numpy as np, eval as E

class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        assert self.headers['Authorization'] == 'Bearer k1'
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        last = {}
        for r in body['series']: last[r['unique_id']] = r['y']
        rows = []
        for uid, v in last.items():
            for k in range(body['h']):
                iv = {str(l): {'lo': v - l, 'hi': v + l} for l in body['level']}
                rows.append({'unique_id': uid, 'ds': 'x', 'y_hat': v, 'intervals': iv})
        out = json.dumps({'forecast': rows}).encode()
        self.send_response(200); self.send_header('Content-Type', 'application/json'); self.end_headers(); self.wfile.write(out)

srv = HTTPServer(('127.0.0.1', 0), H)
threading.Thread(target=srv.serve_forever, daemon=True).start()
cfg = E.SETS['weekly']; ids, series, target = E.read_m4(cfg['file'])
p, q = E.service_forecast(f'http://127.0.0.1:{srv.server_port}', 'k1', ids[:70], series[:70], cfg, chunk=30)
lastv = np.array([s[-1] for s in series[:70]])
assert np.allclose(p, lastv[:, None]) and np.allclose(q[:, :, 0], lastv[:, None] - 98) and np.allclose(q[:, :, 12], lastv[:, None] + 98)
assert np.allclose(q[:, :, 5], lastv[:, None] - 20) and np.allclose(q[:, :, 6], p)
print('service path parses all 13 quantiles: OK')
