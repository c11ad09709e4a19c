"""Which objects the user sees: a body that is hidden, disabled or excluded is not simulated.

Blender hides an object through its own flags (eye: hidden in the view layer; monitor: disabled
in viewports; camera: disabled in renders) and through every collection it sits in (excluded
from the view layer, hidden there, or disabled in viewports or renders). An object linked into
several collections is shown when one of its paths is clear.
"""


def shown_objects(scene, view_layer) -> set[str]:
    """Names of the scene's objects that are visible in `view_layer` and enabled for render."""
    reachable: set[str] = set()
    pending = [view_layer.layer_collection]
    while pending:
        layer = pending.pop()
        collection = layer.collection
        if layer.exclude or layer.hide_viewport:
            continue
        if collection.hide_viewport or collection.hide_render:
            continue
        reachable.update(obj.name for obj in collection.objects)
        pending.extend(layer.children)
    return {
        obj.name
        for obj in scene.objects
        if obj.name in reachable
        and not (obj.hide_get(view_layer=view_layer) or obj.hide_viewport or obj.hide_render)
    }
