"""Reading shader node trees as Cycles renders them: what feeds a socket,
the active output, an input's own value."""


def linked_source(socket):
    """The node and output that feed socket, through reroutes and past
    muted links, or (None, None)."""
    seen = 0
    while socket is not None and socket.is_linked and seen < 64:
        link = socket.links[0]
        if getattr(link, "is_muted", False) or not link.is_valid:
            return None, None
        node = link.from_node
        if node.type == "REROUTE":
            socket = node.inputs[0]
            seen += 1
            continue
        return node, link.from_socket
    return None, None


def output_node(tree, kind):
    """The active output node of a node tree (OUTPUT_MATERIAL or
    OUTPUT_WORLD) that Cycles renders."""
    outs = [n for n in tree.nodes if n.type == kind and not n.mute]
    for n in outs:
        if n.is_active_output and getattr(n, "target", "ALL") in ("ALL", "CYCLES"):
            return n
    for n in outs:
        if getattr(n, "target", "ALL") in ("ALL", "CYCLES"):
            return n
    return outs[0] if outs else None


def surface_shader(mat):
    """The node linked to the material's Surface output, or None."""
    if mat is None or not mat.use_nodes or mat.node_tree is None:
        return None
    out = output_node(mat.node_tree, "OUTPUT_MATERIAL")
    if out is None:
        return None
    node, _ = linked_source(out.inputs["Surface"])
    return node


def input_value(node, *names):
    """The default value of the first of names that node has (a tuple for
    vectors and colours), or None."""
    for name in names:
        sock = node.inputs.get(name)
        if sock is not None and hasattr(sock, "default_value"):
            v = sock.default_value
            return tuple(v) if hasattr(v, "__len__") else float(v)
    return None


def is_linked(node, *names):
    for name in names:
        sock = node.inputs.get(name)
        if sock is not None and sock.is_linked:
            return True
    return False
