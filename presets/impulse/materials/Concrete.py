import bpy

obj = bpy.context.object

# Concrete: density 2.4 g/cm³, restitution ~0.2, friction against most materials 0.5-0.7.
obj.impulse.mass_mode = 'DENSITY'
obj.impulse.density = 2400.0
obj.impulse.restitution = 0.2
obj.impulse.friction = 0.6
