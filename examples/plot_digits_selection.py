"""
Placeholder
===========
"""
print(1)
