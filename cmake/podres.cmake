# The kubelet's pod-resources client (src/collect/podres.c, grpc.c):
# src/collect/proto/podresources.proto compiled by protoc-c into
# build/generated, HTTP/2 from nghttp2 and the protobuf runtime from
# protobuf-c, both linked from their static archives like the other
# libraries only the agent uses. Included after gwcore is defined.
find_program(PROTOC_C protoc-c)
if(NOT PROTOC_C)
  message(FATAL_ERROR "protoc-c not found (install protobuf-c-compiler)")
endif()
pkg_check_modules(NGHTTP2 REQUIRED IMPORTED_TARGET libnghttp2)
pkg_check_modules(PROTOBUFC REQUIRED IMPORTED_TARGET libprotobuf-c)
set(GW_PODRES_GEN ${CMAKE_BINARY_DIR}/generated/podres)
add_custom_command(
  OUTPUT ${GW_PODRES_GEN}/podresources.pb-c.c ${GW_PODRES_GEN}/podresources.pb-c.h
  COMMAND ${CMAKE_COMMAND} -E make_directory ${GW_PODRES_GEN}
  COMMAND ${PROTOC_C} --c_out=${GW_PODRES_GEN} -I${CMAKE_SOURCE_DIR}/src/collect/proto
          ${CMAKE_SOURCE_DIR}/src/collect/proto/podresources.proto
  DEPENDS ${CMAKE_SOURCE_DIR}/src/collect/proto/podresources.proto
  COMMENT "protoc-c podresources.proto" VERBATIM)
target_sources(gwcore PRIVATE ${GW_PODRES_GEN}/podresources.pb-c.c)
target_include_directories(gwcore PRIVATE ${GW_PODRES_GEN} ${NGHTTP2_INCLUDE_DIRS} ${PROTOBUFC_INCLUDE_DIRS})
gw_dep(GW_NGHTTP2 libnghttp2.a PkgConfig::NGHTTP2)
gw_dep(GW_PROTOBUFC libprotobuf-c.a PkgConfig::PROTOBUFC)
target_link_libraries(gwcore PUBLIC ${GW_NGHTTP2} ${GW_PROTOBUFC})
