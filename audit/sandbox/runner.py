# Runs one code listing in a separate Python process (started with -I -S: the standard library
# only, no site-packages, no user paths). Reads {"code", "function", "calls"} as JSON on stdin and
# writes one JSON line per call to stdout, flushed, so a caller that has to kill a hanging
# process still has every result up to the hang. Standard library only; never imports chapter-audit.
import json
import os
import sys


def decode(value):
    if isinstance(value, dict) and "__set__" in value:
        return set(decode(v) for v in value["__set__"])
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def emit(record):
    sys.__stdout__.write(json.dumps(record) + "\n")
    sys.__stdout__.flush()


def main():
    request = json.loads(sys.stdin.read())
    scratch = os.path.realpath(os.getcwd())
    blocked_events = {"socket.connect", "socket.bind", "socket.sendto", "subprocess.Popen", "os.system",
                      "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "pty.spawn",
                      "ctypes.dlopen", "os.kill", "os.killpg"}
    path_events = {"os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.truncate", "os.chmod", "os.chown",
                   "os.link", "os.symlink", "shutil.rmtree", "shutil.move", "shutil.copyfile", "os.replace"}

    def outside(path):
        try:
            full = os.path.realpath(os.path.join(scratch, os.fsdecode(path)))
        except (TypeError, ValueError):
            return False
        return not (full == scratch or full.startswith(scratch + os.sep))

    def hook(event, args):
        if event == "open":
            path, mode, flags = (list(args) + [None, None, None])[:3]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
                (isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND))
            if path is not None and not isinstance(path, int) and writing and outside(path):
                emit({"violation": f"wrote outside its scratch folder: {os.fsdecode(path)}"})
                raise PermissionError("chapter-audit: writing outside the scratch folder is not allowed")
        elif event in path_events:
            paths = [a for a in args if isinstance(a, (str, bytes, os.PathLike))]
            if any(outside(p) for p in paths):
                emit({"violation": f"{event} outside its scratch folder: {', '.join(map(os.fsdecode, paths))}"})
                raise PermissionError(f"chapter-audit: {event} outside the scratch folder is not allowed")
        elif event in blocked_events:
            emit({"violation": f"attempted {event}"})
            raise PermissionError(f"chapter-audit: {event} is not allowed")

    namespace = {"__name__": "listing"}
    sys.addaudithook(hook)
    try:
        exec(compile(request["code"], "<listing>", "exec"), namespace)
        function = namespace[request["function"]]
    except BaseException as exc:
        emit({"load_error": f"{type(exc).__name__}: {exc}"})
        return
    for index in range(request.get("start", 0), len(request["calls"])):
        emit({"started": index})
        args = decode(request["calls"][index])
        try:
            value = function(*args)
        except BaseException as exc:
            emit({"i": index, "raises": type(exc).__name__, "message": str(exc)[:200]})
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            emit({"i": index, "returns": repr(value)[:200]})
        else:
            emit({"i": index, "ok": value})


main()
