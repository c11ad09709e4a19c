import bpy

obj = bpy.context.object

# Seasoned hardwood: density 0.6-0.8 g/cm³, restitution ~0.5, wood on wood friction 0.25-0.5.
obj.impulse.mass_mode = 'DENSITY'
obj.impulse.density = 700.0
obj.impulse.restitution = 0.5
obj.impulse.friction = 0.4
