import bpy

obj = bpy.context.object

# Mild steel: density 7.85 g/cm³, restitution ~0.6, dry steel on steel friction ~0.5 (kinetic 0.42).
obj.impulse.mass_mode = 'DENSITY'
obj.impulse.density = 7850.0
obj.impulse.restitution = 0.6
obj.impulse.friction = 0.5
