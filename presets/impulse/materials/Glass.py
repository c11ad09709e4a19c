import bpy

obj = bpy.context.object

# Soda-lime glass: density 2.5 g/cm³, restitution ~0.7, glass on glass kinetic friction ~0.4.
obj.impulse.mass_mode = 'DENSITY'
obj.impulse.density = 2500.0
obj.impulse.restitution = 0.7
obj.impulse.friction = 0.4
