#!/usr/bin/env python3
# Writes the onnx_import seeds of the converters real architectures need
# (tools/fuzzers/corpus/onnx_import/arch_*.onnx): one small model per op family,
# built with onnx.helper (Debian's python3-onnx: /usr/bin/python3 make_arch_op_seeds.py DIR).
import os, sys
import onnx, numpy as np
from onnx import helper as h, TensorProto as T, numpy_helper as nh
def model(name, nodes, inputs, outputs, inits=(), opset=17):
    g = h.make_graph(nodes, name, inputs, outputs, list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid('', opset)], producer_name='seed')
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(sys.argv[1], 'arch_%s.onnx' % name))
vi = h.make_tensor_value_info
model('pool_ceil', [h.make_node('MaxPool', ['x'], ['y'], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
                    h.make_node('AveragePool', ['y'], ['z'], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)],
      [vi('x', T.FLOAT, [1, 2, 7, 7])], [vi('z', T.FLOAT, [1, 2, 2, 2])])
model('pool_nd', [h.make_node('MaxPool', ['x'], ['y'], kernel_shape=[2, 2, 2]),
                  h.make_node('AveragePool', ['c'], ['d'], kernel_shape=[3], pads=[1, 1])],
      [vi('x', T.FLOAT, [1, 1, 3, 3, 3]), vi('c', T.FLOAT, [1, 2, 5])],
      [vi('y', T.FLOAT, [1, 1, 2, 2, 2]), vi('d', T.FLOAT, [1, 2, 5])])
model('gather_elements', [h.make_node('GatherElements', ['x', 'i'], ['y'], axis=1),
                          h.make_node('GatherND', ['x', 'j'], ['z'])],
      [vi('x', T.FLOAT, [2, 3]), vi('i', T.INT64, [2, 2])], [vi('y', T.FLOAT, [2, 2]), vi('z', T.FLOAT, [2])],
      [nh.from_array(np.array([[0, 1], [1, 2]], np.int64), 'j')])
model('scatter', [h.make_node('ScatterND', ['x', 'i', 'u'], ['y']),
                  h.make_node('ScatterElements', ['y', 'k', 'v'], ['z'], axis=1)],
      [vi('x', T.FLOAT, [4, 2]), vi('u', T.FLOAT, [2, 2]), vi('v', T.FLOAT, [4, 1])], [vi('z', T.FLOAT, [4, 2])],
      [nh.from_array(np.array([[1], [3]], np.int64), 'i'), nh.from_array(np.array([[1], [0], [1], [-1]], np.int64), 'k')])
model('einsum', [h.make_node('Einsum', ['a', 'b'], ['y'], equation='bhid,bhjd->bhij')],
      [vi('a', T.FLOAT, [1, 2, 3, 4]), vi('b', T.FLOAT, [1, 2, 5, 4])], [vi('y', T.FLOAT, [1, 2, 3, 5])])
then_g = h.make_graph([h.make_node('Relu', ['x'], ['t'])], 'then', [], [vi('t', T.FLOAT, [2, 2])])
else_g = h.make_graph([h.make_node('Neg', ['x'], ['e'])], 'else', [], [vi('e', T.FLOAT, [2, 2])])
model('if', [h.make_node('Shape', ['x'], ['s']), h.make_node('ReduceSum', ['s'], ['n'], keepdims=0),
             h.make_node('Equal', ['n', 'four'], ['c']),
             h.make_node('If', ['c'], ['y'], then_branch=then_g, else_branch=else_g)],
      [vi('x', T.FLOAT, [2, 2])], [vi('y', T.FLOAT, [2, 2])], [nh.from_array(np.array(4, np.int64), 'four')])
model('resize', [h.make_node('Resize', ['x', '', 's'], ['y'], mode='linear', coordinate_transformation_mode='half_pixel'),
                 h.make_node('Resize', ['y', '', 's'], ['z'], mode='nearest', coordinate_transformation_mode='asymmetric', nearest_mode='floor')],
      [vi('x', T.FLOAT, [1, 1, 2, 3])], [vi('z', T.FLOAT, [1, 1, 8, 12])],
      [nh.from_array(np.array([1, 1, 2, 2], np.float32), 's')])
model('conv_transpose', [h.make_node('ConvTranspose', ['x', 'w', 'b'], ['y'], strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])],
      [vi('x', T.FLOAT, [1, 2, 3, 3])], [vi('y', T.FLOAT, [1, 1, 6, 6])],
      [nh.from_array(np.arange(18, dtype=np.float32).reshape(2, 1, 3, 3), 'w'), nh.from_array(np.array([0.5], np.float32), 'b')])
model('topk', [h.make_node('TopK', ['x', 'k'], ['v', 'i'], axis=-1)],
      [vi('x', T.FLOAT, [2, 6])], [vi('v', T.FLOAT, [2, 3]), vi('i', T.INT64, [2, 3])],
      [nh.from_array(np.array([3], np.int64), 'k')])
model('conv3d', [h.make_node('Conv', ['x', 'w'], ['y'], pads=[1, 1, 1, 1, 1, 1], strides=[2, 1, 1])],
      [vi('x', T.FLOAT, [1, 2, 4, 3, 3])], [vi('y', T.FLOAT, [1, 3, 2, 3, 3])],
      [nh.from_array(np.ones((3, 2, 3, 3, 3), np.float32), 'w')])
