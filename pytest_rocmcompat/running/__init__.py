"""Running tests elsewhere: isolation sandboxes, GPU locks and xdist pinning, process trees and
warm interpreters. Imports ``session`` and below; never ``report`` (the two are independent).
"""
